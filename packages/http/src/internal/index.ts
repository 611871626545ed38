export { rejoinStream, writeTaskLog } from '../stream-runs/rejoin-stream.ts';
export type { StreamRun } from '../stream-runs/stream-run.ts';
export type { StreamedAgent, StreamRunHost } from '../stream-runs/stream-run-host.ts';
export {
  DEFAULT_STREAM_RETAIN_MS,
  type StreamRunStartOptions,
  StreamRuns,
  type StreamRunsOptions,
} from '../stream-runs/stream-runs.ts';
