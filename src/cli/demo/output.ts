/**
 * Where `fdkit demo` shows what happens: plain timestamped lines (stdout is not a terminal, or `--plain`),
 * or a live screen redrawn in place a few times a second. The demo talks to either through
 * {@link DemoOutput}; what is shown comes from the pure `frame.ts`, `table.ts` and `format.ts`.
 */
import type { Clock, Timer } from '../../runtime/clock.js';
import { CLEAR_SCREEN, colourStates, HIDE_CURSOR, redraw, SHOW_CURSOR } from './ansi.js';
import type { ClusterView } from './cluster-view.js';
import { plainLine } from './format.js';
import { renderFrame } from './frame.js';
import { memberColumns, memberRows, renderTable } from './table.js';

/** How the demo reports; every time is ms since the demo started. */
export interface DemoOutput {
  /** Something happened at `atMs`. */
  note(atMs: number, text: string): void;
  /** The demo starts a new phase. */
  phase(atMs: number, text: string): void;
  /** A moment worth seeing the whole table: plain output prints it, the live screen always shows it. */
  table(atMs: number): void;
  /** Stops drawing: the live screen keeps its last frame. Notes and tables after this are dropped. */
  stop(): void;
  /** Writes `lines` below everything, once stopped. */
  print(lines: readonly string[]): void;
}

/** Plain lines, no escape sequences: for pipes, files and `--plain`. */
export class PlainOutput implements DemoOutput {
  private stopped = false;

  constructor(
    private readonly view: ClusterView,
    private readonly write: (line: string) => void,
  ) {}

  note(atMs: number, text: string): void {
    if (!this.stopped) this.write(plainLine(atMs, text));
  }

  phase(atMs: number, text: string): void {
    this.note(atMs, `== ${text}`);
  }

  table(atMs: number): void {
    if (this.stopped) return;
    const lines = renderTable(memberRows(this.view, atMs), memberColumns(this.view.names.length));
    for (const line of lines) this.write(`           ${line}`);
  }

  stop(): void {
    this.stopped = true;
  }

  print(lines: readonly string[]): void {
    for (const line of lines) this.write(line);
  }
}

/** What the live screen draws on. */
export interface Terminal {
  write(text: string): void;
  readonly columns: number;
  readonly rows: number;
  /** Calls `listener` when the terminal is resized. */
  onResize(listener: () => void): void;
}

/** How often the live screen is redrawn. */
const REDRAW_MS = 200;

/** A screen redrawn in place: the table, the phase and the latest events. */
export class LiveOutput implements DemoOutput {
  private readonly recent: string[] = [];
  private currentPhase = 'starting';
  private drawn = 0;
  private resized = false;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly view: ClusterView,
    private readonly terminal: Terminal,
    private readonly clock: Clock,
    private readonly options: {
      readonly title: string;
      /** Ms since the demo started. */
      readonly now: () => number;
      readonly colour: boolean;
    },
  ) {
    terminal.onResize(() => {
      this.resized = true;
    });
    terminal.write(HIDE_CURSOR);
    this.tick();
  }

  note(atMs: number, text: string): void {
    this.recent.push(plainLine(atMs, text));
    // Only what fits on a screen is ever drawn.
    if (this.recent.length > 200) this.recent.splice(0, 100);
  }

  phase(atMs: number, text: string): void {
    this.currentPhase = text;
    this.note(atMs, `== ${text}`);
    this.draw();
  }

  table(): void {
    // The table is always on screen.
  }

  stop(): void {
    if (this.stopped) return;
    this.draw();
    this.stopped = true;
    this.timer?.cancel();
    this.terminal.write(SHOW_CURSOR);
  }

  print(lines: readonly string[]): void {
    this.terminal.write(lines.map((l) => `${l}\n`).join(''));
  }

  private tick(): void {
    if (this.stopped) return;
    this.draw();
    this.timer = this.clock.setTimer(REDRAW_MS, () => this.tick());
  }

  private draw(): void {
    if (this.stopped) return;
    const lines = renderFrame(this.view, {
      title: this.options.title,
      nowMs: this.options.now(),
      phase: this.currentPhase,
      recent: this.recent,
      columns: this.terminal.columns,
      rows: this.terminal.rows,
    });
    // After a resize the old block may have rewrapped: start again from a clear screen.
    const prefix = this.resized ? CLEAR_SCREEN : '';
    const previous = this.resized ? 0 : this.drawn;
    this.resized = false;
    this.drawn = lines.length;
    this.terminal.write(prefix + redraw(previous, this.options.colour ? lines.map(colourStates) : lines));
  }
}
