// Message helpers: values quoted from a file end up in one-line error messages, so they are
// escaped and shortened here rather than pasted raw (a header may hold newlines or control bytes).

const MAX_QUOTED = 48;

/** `'text'` with control and non-ASCII characters escaped, cut to a readable length. */
export function quote(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code === 0x27 || code === 0x5c) out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
    if (out.length > MAX_QUOTED) return `'${out.slice(0, MAX_QUOTED)}...'`;
  }
  return `'${out}'`;
}
