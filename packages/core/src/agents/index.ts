export type { AssistantAgentOptions } from './assistant.ts';
export { createAssistantAgent } from './assistant.ts';
export { calculatorTool, createClockTool, wordCountTool } from './assistant-tools.ts';
export { createBookingAgent } from './booking.ts';
export { evaluateExpression } from './calculator.ts';
export { createEchoAgent } from './echo.ts';
export { createTickerAgent, parseTickerInput, type TickerPlan } from './ticker.ts';
