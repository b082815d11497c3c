import { Box, Text, type TextProps } from 'ink';

/** What a piece of text is, so one place decides how it looks. */
export type Tone = 'title' | 'dtype' | 'label' | 'value' | 'alert' | 'bars' | 'note';

export interface Segment {
  readonly text: string;
  readonly tone?: Tone;
}

export type Line = readonly Segment[];

const TONES: Record<Tone, TextProps> = {
  title: { bold: true },
  dtype: { color: 'cyan' },
  label: { dimColor: true },
  value: { color: 'yellow' },
  alert: { color: 'red' },
  bars: { color: 'green' },
  note: { dimColor: true },
};

export interface StyledLinesProps {
  readonly lines: readonly Line[];
  readonly columns: number;
  /** Without colour no style prop is set at all, so no escape sequence can reach the frame. */
  readonly color: boolean;
}

/**
 * Lines of styled segments, each cut at the width with … rather than wrapped. An empty line stays
 * a blank line (Ink drops a Text with no characters).
 */
export function StyledLines({ lines, columns, color }: StyledLinesProps) {
  return (
    <Box flexDirection="column" width={columns}>
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines are rendered once and never reordered
        <Text key={i} wrap="truncate-end">
          {line.length === 0 || line.every((s) => s.text === '')
            ? ' '
            : line.map((s, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: segments are static
                <Text key={j} {...(color && s.tone ? TONES[s.tone] : {})}>
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}
