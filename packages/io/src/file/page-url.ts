// A URL as the runtime's own fetch() would read it: in a page a relative URL ('/x.safetensors',
// 'weights/x.npz') is resolved against the document's base (a <base href> included), in a worker
// against the script's location. Outside both (Node, Deno without --location) there is no base, and
// a relative URL is left for the URL parser to refuse.

interface PageGlobals {
  readonly document?: { readonly baseURI?: string };
  readonly location?: { readonly href?: string };
}

/** `url` made absolute against the page's base; an absolute URL is returned unchanged. */
export function pageUrl(url: string): string {
  if (URL.canParse(url)) return url;
  const page = globalThis as PageGlobals;
  const base = page.document?.baseURI ?? page.location?.href;
  return base !== undefined && URL.canParse(url, base) ? new URL(url, base).href : url;
}
