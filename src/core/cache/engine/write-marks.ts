import { type Dependencies, type WriteEffect, affects, withoutTexts } from '../dependencies.js';
import type { Mark } from './entries.js';

/** How many recent effects are remembered to decide whether an answer computed meanwhile is current. */
const RECENT_EFFECTS = 512;

/**
 * Where the cache's writes stand, for whatever it keeps (answers, kept records): the
 * effects applied lately, the last one numbered `applied`. A value computed while one of them arrived
 * is kept only if none of those meets its dependencies (read-during-write race).
 */
export class WriteMarks {
  private readonly recent: WriteEffect[] = [];
  private applied = 0;
  /** Bumped when the cache is emptied wholesale (suspend, resume): nothing computed before is stored. */
  private epoch = 0;
  /** While the invalidations of other instances cannot reach this one, nothing is served or stored. */
  suspended = false;

  /** A write's effect applied. */
  note(effect: WriteEffect): void {
    // Remembered without texts (bounded memory): an answer computed meanwhile is judged more strictly.
    this.recent.push(withoutTexts(effect));
    if (this.recent.length > RECENT_EFFECTS) this.recent.shift();
    this.applied++;
  }

  /** The cache emptied wholesale: nothing computed before is current. */
  emptied(): void {
    this.epoch++;
  }

  /** A mark to compare with `current` once an answer is computed. */
  mark(): Mark {
    return { epoch: this.epoch, applied: this.applied };
  }

  /** Whether a value computed since `mark` with these dependencies is still current. */
  current(mark: Mark, dependencies: Dependencies): boolean {
    if (mark.epoch !== this.epoch) return false;
    const since = this.applied - mark.applied;
    if (since === 0) return true;
    if (since > this.recent.length) return false;
    return !this.recent.slice(-since).some((effect) => affects(effect, dependencies));
  }
}
