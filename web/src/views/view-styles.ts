// The lazily loaded views' styles (views.css: not in the first load); lazy.ts adds them to every
// element's sheet with the first of those views, before drawing it.
export { default } from './views.css?inline';
