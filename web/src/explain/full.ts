// full: softmax attention's scores, allowed, weights and context (softmax.ts as it is).
import { fullSpec, softmaxExplainer } from './softmax';

export default softmaxExplainer(fullSpec);
