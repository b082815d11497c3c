export {
  type BeamSequence,
  type BeamSequences,
  type BeamSequencesOptions,
  beamSequences,
  beamsToJson,
  decodeBeams,
  formatTokens,
  type Layout,
  type TokenId,
} from './beams.js';
export {
  type EndToken,
  isStepDtype,
  type ResolvedEndToken,
  resolveEndToken,
  STEP_DTYPES,
  type StepDtype,
} from './end-token.js';
export { type GatherTreeOptions, gatherTree } from './gather-tree/index.js';
