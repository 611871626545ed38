import { CancellationError } from '../errors/cancellation-error.ts';

/**
 * Runs one task in its slot: never rejects, and calls `slots.finished(id, controller)` once the
 * run is over, whatever its end.
 */
export type SlotRun = (id: string, controller: AbortController, slots: RunSlots) => Promise<void>;

/** A task runner's queue and its run slots: at most `maxConcurrency` tasks run at once. */
export class RunSlots {
  readonly #maxConcurrency: number;
  readonly #run: SlotRun;
  readonly #queue: string[] = [];
  /** The ids in the queue, to find one at once. */
  readonly #queued = new Set<string>();
  readonly #running = new Map<string, AbortController>();
  /** The runs whose agents are done while their ends are written: running, not counted. */
  readonly #ending = new Set<AbortController>();
  #active = 0;

  constructor(maxConcurrency: number, run: SlotRun) {
    this.#maxConcurrency = maxConcurrency;
    this.#run = run;
  }

  /** Queues a task and starts whatever fits; one already queued or running here is left as it is. */
  start(id: string): void {
    if (this.#running.has(id) || this.#queued.has(id)) return;
    this.#queue.push(id);
    this.#queued.add(id);
    this.#pump();
  }

  /**
   * Takes a free slot for a task about to be created started (nothing queued waits for it);
   * whether one was free. The slot is then `runReserved`'s, or given back by `unreserve`.
   */
  reserve(): boolean {
    if (this.room() <= 0) return false;
    this.#active += 1;
    return true;
  }

  /** Runs a task in the slot `reserve` took for it. */
  runReserved(id: string): void {
    const controller = new AbortController();
    this.#running.set(id, controller);
    // A run never rejects.
    void this.#run(id, controller, this);
  }

  /** Gives back a slot `reserve` took (the task was not created), and starts the next. */
  unreserve(): void {
    this.#active -= 1;
    this.#pump();
  }

  /** How many more tasks would start at once: the free slots, less what the queue holds. */
  room(): number {
    return this.#maxConcurrency - this.#active - this.#queue.length;
  }

  /**
   * A task was canceled, by whichever process: the run of it here is aborted and frees its slot
   * at once (even if its agent never stops), or it leaves the queue.
   */
  canceled(id: string): void {
    const controller = this.#running.get(id);
    if (controller !== undefined) this.#release(id, controller);
    if (!this.#queued.delete(id)) return;
    this.#queue.splice(this.#queue.indexOf(id), 1);
  }

  /**
   * A run's agent is done: its slot goes to the next task while the run writes its end (a slot
   * held through the store's round trips would bound the store's throughput, not the agents).
   * The run is still here until `finished`: it is not started twice, and a close cancels it.
   */
  agentDone(id: string, controller: AbortController): void {
    if (this.#running.get(id) !== controller || this.#ending.has(controller)) return;
    this.#ending.add(controller);
    this.#active -= 1;
    this.#pump();
  }

  /** A run is over: frees its slot (unless a cancel freed it already) and starts the next. */
  finished(id: string, controller: AbortController): void {
    if (this.#free(id, controller)) this.#pump();
  }

  /** Empties the queue; the ids of the tasks it held and of those running. */
  drain(): string[] {
    const ids = [...this.#queue, ...this.#running.keys()];
    this.#queue.length = 0;
    this.#queued.clear();
    return ids;
  }

  /** Aborts every run still on, freeing its slot. */
  releaseAll(): void {
    for (const [id, controller] of [...this.#running]) this.#release(id, controller);
  }

  /** Frees a run's slot, unless a cancel freed it already; whether this call freed it. */
  #free(id: string, controller: AbortController): boolean {
    if (this.#running.get(id) !== controller) return false;
    this.#running.delete(id);
    if (!this.#ending.delete(controller)) this.#active -= 1;
    return true;
  }

  #release(id: string, controller: AbortController): void {
    if (!this.#free(id, controller)) return;
    controller.abort(new CancellationError('The task was canceled'));
    this.#pump();
  }

  #pump(): void {
    while (this.#active < this.#maxConcurrency && this.#queue.length > 0) {
      const id = this.#queue.shift() as string;
      this.#queued.delete(id);
      this.#active += 1;
      const controller = new AbortController();
      this.#running.set(id, controller);
      // A run never rejects.
      void this.#run(id, controller, this);
    }
  }
}
