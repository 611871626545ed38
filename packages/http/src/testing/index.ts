export {
  createBrokenAgent,
  createMistypedAgent,
  createThrowingAgent,
  createUnfinishedAgent,
  createUnserialisableAgent,
  createWaitingAgent,
} from './agents.ts';
export { exchangeRaw, type RefusedUpload, uploadUntilClosed } from './raw-http.ts';
export { type ReceivedAnswer, type SentRequest, sendRequest } from './send.ts';
export { readAnswer, serve, servedPerTest, type TestServer } from './serve.ts';
export { eventsOf, type ParsedStream, parseSSE, readSSE, readSSEEvents } from './sse.ts';
export {
  dropAndRejoin,
  errorCodesOf,
  REJOIN_REFUSALS,
  type RejoinedStream,
  rejoinRefusals,
  sentSeqs,
} from './stream-runs.ts';
