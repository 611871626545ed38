export {
  createBrokenAgent,
  createMistypedAgent,
  createThrowingAgent,
  createUnfinishedAgent,
  createUnserialisableAgent,
  createWaitingAgent,
} from './agents.ts';
export { exchangeRaw, type RefusedUpload, uploadUntilClosed } from './raw-http.ts';
export { readAnswer, serve, servedPerTest, type TestServer } from './serve.ts';
export { eventsOf, type ParsedStream, parseSSE, readSSE } from './sse.ts';
