// Where a tensor reference ends and its slice begins: `emb.npy[1:3]`,
// `model.safetensors:embed.weight[1000:1010, ::2]`. The slice is the final bracket group: the
// text from the `[` that balances the last `]` to the end, found by one backward pass. Names may
// hold brackets themselves (`h.0.attn[0]`): the caller first tries the whole reference as a file
// and as a tensor name, and takes the group as a slice only when those do not exist.

/** `ref` without its final bracket group, and the group (brackets included); undefined: none. */
export function splitTrailingSlice(ref: string): { ref: string; slice: string } | undefined {
  if (!ref.endsWith(']')) return undefined;
  let depth = 0;
  for (let i = ref.length - 1; i > 0; i--) {
    const c = ref[i];
    if (c === ']') depth++;
    else if (c === '[' && --depth === 0) return { ref: ref.slice(0, i), slice: ref.slice(i) };
  }
  return undefined;
}
