import { AgentPortError } from './agentport-error.ts';

/** A tool was called with arguments that do not match its parameters schema (400). */
export class ToolArgumentsError extends AgentPortError {
  /** The tool that was called. */
  readonly toolName: string;

  constructor(toolName: string, detail: string) {
    super({
      code: 'invalid_tool_arguments',
      message: `Invalid arguments for tool '${toolName}': ${detail}`,
      status: 400,
    });
    this.name = 'ToolArgumentsError';
    this.toolName = toolName;
  }
}
