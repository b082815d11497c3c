/**
 * A tensor-name matcher for `--filter`, with Python fnmatch's rules (what numpy users know): `*`
 * any run of characters (dots and slashes included), `?` one character, `[abc]` / `[a-z]` one of a
 * set, `[!abc]` one not in it; everything else, an unclosed `[` included, stands for itself.
 */
export function nameMatcher(glob: string): (name: string) => boolean {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') pattern += '[\\s\\S]*';
    else if (c === '?') pattern += '[\\s\\S]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) pattern += '\\[';
      else {
        let set = glob.slice(i + 1, close);
        const negated = set.startsWith('!');
        if (negated) set = set.slice(1);
        pattern += `[${negated ? '^' : ''}${set.replace(/[\\^\]]/g, '\\$&')}]`;
        i = close;
      }
    } else pattern += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  const regex = new RegExp(`^${pattern}$`, 'u');
  return (name) => regex.test(name);
}
