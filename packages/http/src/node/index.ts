export { BatchingServerResponse } from './batching-response.ts';
export { answeredInsteadOf } from './client-error.ts';
export {
  answerUnservable,
  type FetchApp,
  type ListenAddress,
  ListenError,
  type ListenOptions,
  listen,
} from './listen.ts';
export { type NodeAction, nodeAction } from './node-action.ts';
export {
  type AnswerHeaders,
  type CallerSignal,
  callerSignal,
  hasPlainJsonBody,
  type NodeRouteHandler,
  readBody,
  writeAnswer,
  writeErrorAnswer,
} from './node-answer.ts';
export {
  createNodeRouter,
  type NodeMount,
  type NodeRouter,
  type NodeRouterOptions,
} from './node-router.ts';
