import {
  checkTensor,
  formatPosition,
  formatShape,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { alignedView, valueView } from '@tensorops/core/internal';
import {
  type EndToken,
  isStepDtype,
  resolveEndToken,
  STEP_DTYPES,
  type StepDtype,
  show,
} from './end-token.js';
import { gatherTree } from './gather-tree/index.js';

/** `time-major`: ids are [MAX_TIME, BATCH, BEAM] (GatherTree's output); `batch-major`: [BATCH, MAX_TIME, BEAM] (TF BeamSearchDecoder's `predicted_ids`). */
export type Layout = 'time-major' | 'batch-major';

/** A token id: a number, or a bigint for a 64-bit id that is not a safe integer (|id| > 2^53 - 1). */
export type TokenId = number | bigint;

export interface BeamSequencesOptions {
  /** Layout of the ids tensor. Default 'time-major'. */
  readonly layout?: Layout;
  /** Keep the end_token that closes a sequence as its last token. Default false. */
  readonly includeEnd?: boolean;
}

export interface BeamSequence {
  readonly batch: number;
  readonly beam: number;
  /** Ids up to the first end_token (that token included only with `includeEnd`). */
  readonly tokens: readonly TokenId[];
  /** `tokens.length`. */
  readonly length: number;
  /** Whether an end_token closed the sequence (false: it ran to MAX_TIME). */
  readonly ended: boolean;
}

export interface BeamSequences {
  readonly dtype: StepDtype;
  readonly endToken: TokenId;
  readonly maxTime: number;
  readonly batchSize: number;
  readonly beamWidth: number;
  readonly includeEnd: boolean;
  /** BATCH x BEAM sequences, batch-major: `beams[b * beamWidth + k]`. */
  readonly beams: readonly BeamSequence[];
}

const TWO_32 = 4294967296;

/**
 * Splits gathered beams ([T, B, K] time-major, or [B, T, K] batch-major) into per-batch,
 * per-beam token sequences cut at the first end_token. Ids compare with end_token exactly in
 * their dtype (float ids by value, so -0 matches 0); float ids before the cut must be integral.
 * Pure; the result is plain data ready to print as lines, a table or JSON (`beamsToJson`).
 *
 * @example
 * beamSequences(tensorFrom('int32', [3, 1, 2], [5, 6, 2, 7, 2, 2]), 2).beams.map((s) => s.tokens)
 * // [[5], [6, 7]]
 */
export function beamSequences(
  ids: Tensor,
  endToken: EndToken,
  options: BeamSequencesOptions = {},
): BeamSequences {
  const op = 'beamSequences';
  const layout = options.layout ?? 'time-major';
  if (layout !== 'time-major' && layout !== 'batch-major') {
    throw new TensorOpsError(
      'E_USAGE',
      `${op}: layout must be 'time-major' or 'batch-major', got '${String(layout)}'`,
    );
  }
  checkTensor(ids, `${op}: ids`);
  const dtype = ids.dtype;
  if (ids.shape.length !== 3) {
    const dims = layout === 'time-major' ? 'MAX_TIME, BATCH, BEAM' : 'BATCH, MAX_TIME, BEAM';
    throw new TensorOpsError(
      'E_SHAPE',
      `${op}: ids must have rank 3 [${dims}] (${layout}), got shape ${formatShape(ids.shape)}`,
    );
  }
  if (!isStepDtype(dtype)) {
    throw new TensorOpsError(
      'E_DTYPE',
      `${op}: ids dtype ${dtype} not supported; expected one of ${STEP_DTYPES.join(', ')}`,
    );
  }
  const includeEnd = options.includeEnd ?? false;
  const end = resolveEndToken(endToken, dtype, op, 'ids');
  const [d0, d1, K] = ids.shape as [number, number, number];
  const [T, B] = layout === 'time-major' ? [d0, d1] : [d1, d0];
  const read = reader(ids, end.bits);
  const beams: BeamSequence[] = [];
  for (let b = 0; b < B; b++) {
    for (let k = 0; k < K; k++) {
      const tokens: TokenId[] = [];
      let ended = false;
      for (let t = 0; t < T; t++) {
        const i = layout === 'time-major' ? (t * B + b) * K + k : (b * T + t) * K + k;
        if (read.isEnd(i)) {
          ended = true;
          if (includeEnd) tokens.push(read.value(i, op));
          break;
        }
        tokens.push(read.value(i, op));
      }
      beams.push({ batch: b, beam: k, tokens, length: tokens.length, ended });
    }
  }
  return {
    dtype,
    endToken: tokenOf(end.value),
    maxTime: T,
    batchSize: B,
    beamWidth: K,
    includeEnd,
    beams,
  };
}

/**
 * `gatherTree` then `beamSequences` on its (time-major) output: the whole beam-search
 * post-processing in one call.
 */
export function decodeBeams(
  stepIds: Tensor,
  parentIds: Tensor,
  maxSeqLen: Tensor,
  endToken: EndToken,
  options: Pick<BeamSequencesOptions, 'includeEnd'> = {},
): BeamSequences {
  const gathered = gatherTree(stepIds, parentIds, maxSeqLen, endToken);
  const opts = options.includeEnd === undefined ? {} : { includeEnd: options.includeEnd };
  return beamSequences(gathered, endToken, opts);
}

/** Tokens separated by single spaces (`5 6 7`); exact for bigint ids. An empty sequence gives ''. */
export function formatTokens(tokens: readonly TokenId[]): string {
  return tokens.join(' ');
}

/**
 * One JSON document for a decoded result. bigint ids are written as exact integer literals
 * (JSON.stringify refuses bigint); parse them with a bigint-aware reader if ids exceed 2^53.
 * `pretty` puts each field and each beam on its own line.
 */
export function beamsToJson(result: BeamSequences, options: { pretty?: boolean } = {}): string {
  const pretty = options.pretty ?? false;
  const sep = pretty ? ', ' : ',';
  const colon = pretty ? ': ' : ':';
  const beam = (s: BeamSequence): string =>
    `{"batch"${colon}${s.batch}${sep}"beam"${colon}${s.beam}${sep}"length"${colon}${s.length}${sep}"ended"${colon}${s.ended}${sep}"tokens"${colon}[${s.tokens.join(sep)}]}`;
  const fields = [
    `"dtype"${colon}"${result.dtype}"`,
    `"endToken"${colon}${result.endToken}`,
    `"maxTime"${colon}${result.maxTime}`,
    `"batchSize"${colon}${result.batchSize}`,
    `"beamWidth"${colon}${result.beamWidth}`,
    `"includeEnd"${colon}${result.includeEnd}`,
  ];
  if (!pretty) return `{${fields.join(',')},"beams":[${result.beams.map(beam).join(',')}]}`;
  const beams =
    result.beams.length === 0
      ? '[]'
      : `[\n${result.beams.map((s) => `    ${beam(s)}`).join(',\n')}\n  ]`;
  return `{\n${fields.map((f) => `  ${f},\n`).join('')}  "beams": ${beams}\n}`;
}

interface Reader {
  isEnd(i: number): boolean;
  value(i: number, op: string): TokenId;
}

/** Element access for one ids tensor: end test in the ids' dtype and exact token values. */
function reader(ids: Tensor, endBits: Uint8Array): Reader {
  const dtype = ids.dtype as StepDtype;
  const fail = (i: number, v: number): never => {
    throw new TensorOpsError(
      'E_VALUE',
      `beamSequences: ids value ${show(v)} at ids${formatPosition(i, ids.shape)} is not an integer (float ids must hold integral values)`,
    );
  };
  switch (dtype) {
    case 'float32':
    case 'float64': {
      const values = valueView(ids);
      const end = valueView({ dtype, shape: [], data: endBits })[0] as number;
      return {
        isEnd: (i) => values[i] === end,
        value: (i) => {
          const v = values[i] as number;
          if (!Number.isInteger(v)) fail(i, v);
          return v === 0 ? 0 : v;
        },
      };
    }
    case 'int64':
    case 'uint64': {
      const words = alignedView(ids.data, Int32Array);
      const endWords = alignedView(endBits, Int32Array);
      const endLo = endWords[0] as number;
      const endHi = endWords[1] as number;
      const signed = dtype === 'int64';
      return {
        isEnd: (i) => words[2 * i] === endLo && words[2 * i + 1] === endHi,
        value: (i) => {
          const lo = (words[2 * i] as number) >>> 0;
          const hi = words[2 * i + 1] as number;
          // Rounding is monotonic, so the sum is a safe integer only when the exact value is.
          const v = (signed ? hi : hi >>> 0) * TWO_32 + lo;
          if (Number.isSafeInteger(v)) return v;
          const bits = (BigInt(hi >>> 0) << 32n) | BigInt(lo);
          return signed ? BigInt.asIntN(64, bits) : bits;
        },
      };
    }
    default: {
      const values = valueView(ids);
      const end = valueView({ dtype, shape: [], data: endBits })[0] as number;
      return { isEnd: (i) => values[i] === end, value: (i) => values[i] as number };
    }
  }
}

function tokenOf(v: number | bigint): TokenId {
  if (typeof v === 'number') return v === 0 ? 0 : v;
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : v;
}
