// Whether a JS string is Unicode text: every surrogate in a pair. A lone one has no UTF-8 form,
// so the safetensors writer refuses it in names and the header reader refuses it in \u escapes.

/** True when `text` holds no lone surrogate (String.prototype.isWellFormed, before ES2024). */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
