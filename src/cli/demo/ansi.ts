/**
 * The few ANSI escape sequences the live screen of `fdkit demo` needs: redraw a block of lines in place,
 * hide and show the cursor, and colour the words that matter. Pure: these build strings; the output glue
 * writes them.
 */

const ESC = '\u001b[';

/** Hides the cursor while the screen is redrawn. */
export const HIDE_CURSOR = `${ESC}?25l`;
/** Shows it again; written on every way out. */
export const SHOW_CURSOR = `${ESC}?25h`;
/** Clears the whole screen and puts the cursor at the top left. */
export const CLEAR_SCREEN = `${ESC}2J${ESC}H`;

/**
 * What to write to replace the `previous` lines last drawn (the cursor is on the line below them) with
 * `lines`: back to the first line, each line cleared and written, and whatever the old block had below
 * the new one cleared. The lines must fit the terminal's width, or wrapping would shift the block.
 */
export function redraw(previous: number, lines: readonly string[]): string {
  let out = previous > 0 ? `\r${ESC}${previous}A` : '';
  for (const line of lines) out += `${ESC}2K${line}\n`;
  return `${out}${ESC}J`;
}

const RED = `${ESC}31m`;
const YELLOW = `${ESC}33m`;
const RESET = `${ESC}0m`;
const COLOURS: Readonly<Record<string, string>> = {
  D: RED,
  dead: RED,
  killed: RED,
  S: YELLOW,
  suspect: YELLOW,
  stopped: YELLOW,
};

/**
 * `line` with the words for dead and suspected members (and killed or stopped processes) coloured. The
 * escapes take no columns, so a line cut to the terminal's width before still fits after.
 */
export function colourStates(line: string): string {
  return line.replace(/(?<=^| )(D|S|dead|killed|suspect|stopped)(?= |$)/g, (word) => {
    return `${COLOURS[word]}${word}${RESET}`;
  });
}
