/**
 * The signals the CLI ends by after removing the temp files of its writes (bin.ts), and which
 * the huge-page launcher passes on to the CLI it started (huge-pages.ts).
 */
export const END_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
