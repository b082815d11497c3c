import type { InspectTensor } from './inspect-report.js';

// inspect --summary: a checkpoint's names grouped where only their numbers differ
// (`model.layers.#.mlp.down_proj.weight ×32`), and its totals.

/** Tensors of one name pattern, dtype and shape. */
export interface InspectGroup {
  /** The name with each run of digits written `#`. */
  readonly name: string;
  readonly count: number;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Bytes of all the group's tensors. */
  readonly nbytes: number;
}

export interface InspectSummary {
  /** In the order of each group's first tensor. */
  readonly groups: readonly InspectGroup[];
  /** Elements of every tensor: the parameter count. */
  readonly parameters: number;
  /** Bytes of the tensors of each dtype, in the order the dtypes first appear. */
  readonly bytes_by_dtype: Readonly<Record<string, number>>;
}

function elements(shape: readonly number[]): number {
  return shape.reduce((n, d) => n * d, 1);
}

/** One pass over the tensors: each is added to the group its pattern, dtype and shape name. */
export function summarize(tensors: readonly InspectTensor[]): InspectSummary {
  const groups = new Map<string, { -readonly [K in keyof InspectGroup]: InspectGroup[K] }>();
  const bytesByDtype: Record<string, number> = {};
  let parameters = 0;
  for (const t of tensors) {
    const name = (t.name ?? '').replace(/\d+/g, '#');
    const key = JSON.stringify([name, t.dtype, t.shape]);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { name, count: 1, dtype: t.dtype, shape: t.shape, nbytes: t.nbytes });
    } else {
      group.count++;
      group.nbytes += t.nbytes;
    }
    parameters += elements(t.shape);
    bytesByDtype[t.dtype] = (bytesByDtype[t.dtype] ?? 0) + t.nbytes;
  }
  return { groups: [...groups.values()], parameters, bytes_by_dtype: bytesByDtype };
}
