export { rejoinStream, writeTaskLog } from '../stream-runs/rejoin-stream.ts';
export type { StreamedAgent, StreamRun, StreamRunHost } from '../stream-runs/stream-run.ts';
export {
  DEFAULT_STREAM_RETAIN_MS,
  type StreamRunStartOptions,
  StreamRuns,
  type StreamRunsOptions,
} from '../stream-runs/stream-runs.ts';
