// Two-core timeline of one inference (TinySeg §5.2, Figure 10): the main core runs kernels,
// spills, fetches and codec work back to back; flash erases can be handed to the second core
// ahead of time (asynchronous RPC) and run in parallel. Before programming a region the main
// core calls requireErased(), which records a stall only if that region's erase is still running.
// Times are microseconds from the start of the inference.

import { InternalError, UsageError } from '../../ir/index.ts';

export type CoreId = 'main' | 'second';
export type MainWork = 'compute' | 'spill' | 'fetch' | 'codec';
export type IntervalKind = MainWork | 'stall' | 'erase';

/** A byte range on one device, e.g. the sectors under a spill block. */
export interface StorageRegion {
  readonly device: string;
  readonly startAddr: number;
  readonly endAddr: number;
}

export interface TimelineInterval {
  readonly core: CoreId;
  readonly kind: IntervalKind;
  readonly startUs: number;
  readonly endUs: number;
  readonly label: string;
  readonly opIndex?: number;
  readonly region?: StorageRegion;
}

export interface TimelineTotals {
  readonly computeUs: number;
  readonly spillUs: number;
  readonly fetchUs: number;
  readonly codecUs: number;
  readonly stallUs: number;
  /** Busy time of the second core (asynchronous erases). */
  readonly secondCoreBusyUs: number;
  /** End of the main core's last interval: the inference latency. */
  readonly totalUs: number;
  /** End of the second core's last erase (may outlast the inference). */
  readonly secondCoreEndUs: number;
}

export class DualCoreTimeline {
  private readonly main: TimelineInterval[] = [];
  private readonly second: TimelineInterval[] = [];
  private mainNowUs = 0;
  private secondFreeUs = 0;

  get nowUs(): number {
    return this.mainNowUs;
  }

  /** Appends `durationUs` of work to the main core. */
  run(kind: MainWork, durationUs: number, label: string, opIndex?: number): TimelineInterval {
    checkDuration(durationUs, label);
    const interval = withOp({ core: 'main', kind, startUs: this.mainNowUs, endUs: this.mainNowUs + durationUs, label }, opIndex);
    this.main.push(interval);
    this.mainNowUs = interval.endUs;
    return interval;
  }

  /**
   * Issues an erase of `region` to the second core now (the RPC returns at once). It starts when
   * the second core is free and the main core has reached this point; erases queue in order.
   */
  issueErase(region: StorageRegion, durationUs: number, label: string, opIndex?: number): TimelineInterval {
    checkDuration(durationUs, label);
    checkRegion(region);
    const startUs = Math.max(this.mainNowUs, this.secondFreeUs);
    const interval = withOp({ core: 'second', kind: 'erase', startUs, endUs: startUs + durationUs, label, region }, opIndex);
    this.second.push(interval);
    this.secondFreeUs = interval.endUs;
    return interval;
  }

  /**
   * The main core is about to program `region`: wait for every overlapping erase still running
   * on the second core. Returns the stall in us (0 if none) and records it as a 'stall' interval.
   */
  requireErased(region: StorageRegion, label: string, opIndex?: number): number {
    checkRegion(region);
    let readyUs = this.mainNowUs;
    for (const e of this.second) {
      if (e.region !== undefined && overlaps(e.region, region) && e.endUs > readyUs) readyUs = e.endUs;
    }
    const stallUs = readyUs - this.mainNowUs;
    if (stallUs > 0) {
      const interval = withOp({ core: 'main', kind: 'stall', startUs: this.mainNowUs, endUs: readyUs, label, region }, opIndex);
      this.main.push(interval);
      this.mainNowUs = readyUs;
    }
    return stallUs;
  }

  intervals(core: CoreId): readonly TimelineInterval[] {
    return core === 'main' ? [...this.main] : [...this.second];
  }

  totals(): TimelineTotals {
    const sum = (kind: IntervalKind): number =>
      this.main.filter((i) => i.kind === kind).reduce((acc, i) => acc + (i.endUs - i.startUs), 0);
    return {
      computeUs: sum('compute'),
      spillUs: sum('spill'),
      fetchUs: sum('fetch'),
      codecUs: sum('codec'),
      stallUs: sum('stall'),
      secondCoreBusyUs: this.second.reduce((acc, i) => acc + (i.endUs - i.startUs), 0),
      totalUs: this.mainNowUs,
      secondCoreEndUs: this.secondFreeUs,
    };
  }
}

function overlaps(a: StorageRegion, b: StorageRegion): boolean {
  return a.device === b.device && a.startAddr < b.endAddr && b.startAddr < a.endAddr;
}

function checkDuration(durationUs: number, label: string): void {
  if (!Number.isFinite(durationUs) || durationUs < 0) {
    throw new InternalError(`timeline: '${label}' has invalid duration ${String(durationUs)} us`);
  }
}

function checkRegion(region: StorageRegion): void {
  if (!Number.isFinite(region.startAddr) || !Number.isFinite(region.endAddr) || region.endAddr < region.startAddr) {
    throw new UsageError(`timeline: invalid region ${JSON.stringify(region)}`);
  }
}

function withOp(base: TimelineInterval, opIndex: number | undefined): TimelineInterval {
  return opIndex === undefined ? base : { ...base, opIndex };
}
