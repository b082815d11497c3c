/**
 * The signals the CLI ends by after removing the temp files of its writes (bin.ts), and which
 * a CLI that started itself again with huge pages passes on to the new one (huge-pages.ts).
 */
export const END_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
