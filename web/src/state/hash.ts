// The scenario in the URL hash (index.html, `sync-hash`): `#preset=NAME` while a preset is
// unmodified, else `#scenario=<JSON, URI-encoded>`. Text only: the element reads and writes location.
import type { Scenario } from '../compute';

export function hashOf(preset: string, modified: boolean, scenario: Scenario): string {
  if (preset && !modified) return '#preset=' + encodeURIComponent(preset);
  return '#scenario=' + encodeURIComponent(JSON.stringify(scenario));
}

/** What a hash asks for: a preset's name or a scenario's JSON text; null when it asks for neither. */
export function parseHash(hash: string): { preset: string } | { scenario: string } | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const preset = params.get('preset');
  const scenario = params.get('scenario');
  if (preset) return { preset };
  if (scenario) return { scenario };
  return null;
}
