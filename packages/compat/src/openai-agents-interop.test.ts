import { type Tool, ToolArgumentsError } from '@agentport/core';
import { createAssistantAgent } from '@agentport/core/agents';
import {
  Agent,
  type AgentInputItem,
  assistant,
  type FunctionTool,
  handoff,
  type ModelProvider,
  Runner,
  setTracingDisabled,
  system,
  tool,
  user,
} from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponder,
  ScriptedModel,
} from '@openai/agents/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentDef, FlatToolDef, RunRequest } from './definitions.ts';
import { toFlatToolDef } from './flat-tool.ts';
import { createRunner } from './runner.ts';

type SdkParameters = FunctionTool['parameters'];

/** Builds an SDK tool from our flat ToolDef; `execute` is the AgentPort tool's own. */
function toSdkTool(definition: FlatToolDef, implementation: Tool): Agent['tools'][number] {
  const execute = (input: unknown) => implementation.execute(input);
  return definition.strict
    ? tool({
        ...definition,
        parameters: definition.parameters as Extract<
          SdkParameters,
          { additionalProperties: false }
        >,
        strict: true,
        execute,
      })
    : tool({
        ...definition,
        parameters: definition.parameters as Extract<SdkParameters, { additionalProperties: true }>,
        strict: false,
        execute,
      });
}

/** Builds SDK agents from AgentDefs, wiring handoffs by descriptor in a second pass. */
function toSdkAgents(definitions: AgentDef[], tools: readonly Tool[]): Map<string, Agent> {
  const descriptions = new Map(
    definitions.flatMap((definition) =>
      (definition.handoffs ?? []).map((entry) => [entry.name, entry.description ?? ''] as const),
    ),
  );
  const agents = new Map<string, Agent>();
  for (const definition of definitions) {
    const sdkTools = (definition.tools ?? []).map((entry) => {
      const implementation = tools.find((candidate) => candidate.name === entry.function.name);
      if (implementation === undefined) throw new Error(`no tool ${entry.function.name}`);
      return toSdkTool(toFlatToolDef(entry), implementation);
    });
    agents.set(
      definition.name,
      new Agent({
        name: definition.name,
        instructions: definition.instructions ?? '',
        handoffDescription: descriptions.get(definition.name) ?? '',
        ...(definition.model === undefined ? {} : { model: definition.model }),
        tools: sdkTools,
      }),
    );
  }
  for (const definition of definitions) {
    const agent = agents.get(definition.name) as Agent;
    agent.handoffs = (definition.handoffs ?? []).map((entry) =>
      handoff(agents.get(entry.name) as Agent),
    );
  }
  return agents;
}

const fetchSpy = vi.fn(async () => {
  throw new Error('no network in this test');
});

beforeAll(() => {
  setTracingDisabled(true);
  vi.stubGlobal('fetch', fetchSpy);
});

afterAll(() => {
  vi.unstubAllGlobals();
});

describe('an AgentDef exported here, run by @openai/agents', () => {
  it('runs with our tools and hands off by the descriptor tool name', async () => {
    const assistant = createAssistantAgent();
    const runner = createRunner({ agents: [assistant] });
    const definitions = runner.listAgents();
    const assistantDefinition = definitions.find((entry) => entry.name === 'assistant') as AgentDef;
    const handoffToolName = assistantDefinition.handoffs?.[0]?.tool_name as string;

    const assistantModel = new ScriptedModel([
      [functionCall('calculator', { expression: '6 * 7' }, { callId: 'call_1' })],
      [functionCall(handoffToolName, {}, { callId: 'call_2' })],
    ]);
    const echoModel = new ScriptedModel([
      modelResponder(({ request }) => {
        const result = (
          request.input as { type?: string; callId?: string; output?: unknown }[]
        ).find((item) => item.type === 'function_call_result' && item.callId === 'call_1');
        return [assistantMessage(`the calculator said ${JSON.stringify(result?.output)}`)];
      }),
    ]);
    const models: Record<string, ScriptedModel> = {
      'agentport/rules': assistantModel,
      'agentport/echo': echoModel,
    };
    const modelProvider: ModelProvider = {
      getModel: (name) => {
        const model = name === undefined ? undefined : models[name];
        if (model === undefined) throw new Error(`unknown model ${name}`);
        return model;
      },
    };

    const agents = toSdkAgents(definitions, assistant.tools);
    const sdkRunner = new Runner({ modelProvider, tracingDisabled: true });
    const result = await sdkRunner.run(agents.get('assistant') as Agent, 'what is 6 * 7?');

    expect(result.lastAgent?.name).toBe('echo');
    expect(result.finalOutput).toBe(
      'the calculator said {"type":"text","text":"{\\"expression\\":\\"6 * 7\\",\\"result\\":42}"}',
    );
    expect(result.newItems.map((item) => item.type)).toEqual([
      'tool_call_item',
      'tool_call_output_item',
      'handoff_call_item',
      'handoff_output_item',
      'message_output_item',
    ]);

    // What the model was sent is exactly our flat ToolDefs and our handoff descriptor.
    const firstRequest = assistantModel.calls[0]?.request;
    expect(firstRequest?.systemInstructions).toBe(assistantDefinition.instructions);
    expect(firstRequest?.tools).toEqual(
      (assistantDefinition.tools ?? []).map((entry) => ({
        ...toFlatToolDef(entry),
        deferLoading: false,
      })),
    );
    expect(firstRequest?.handoffs.map((entry) => entry.toolName)).toEqual(['transfer_to_echo']);
    expect(firstRequest?.handoffs[0]?.toolDescription).toContain(
      assistantDefinition.handoffs?.[0]?.description,
    );
    expect(assistantModel.remainingSteps).toBe(0);
    expect(echoModel.remainingSteps).toBe(0);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('validates arguments with our tool, so a bad call reaches the model as a tool error', async () => {
    const assistant = createAssistantAgent();
    const failures: unknown[] = [];
    const recordingTools = assistant.tools.map(
      (entry): Tool => ({
        ...entry,
        execute: (input, options) =>
          entry.execute(input, options).catch((error: unknown) => {
            failures.push(error);
            throw error;
          }),
      }),
    );
    const definitions = createRunner({ agents: [assistant] }).listAgents();
    const model = new ScriptedModel([
      [functionCall('calculator', { expression: '' }, { callId: 'bad' })],
      modelResponder(({ request }) => {
        const result = (request.input as { type?: string; output?: unknown }[]).find(
          (item) => item.type === 'function_call_result',
        );
        return [assistantMessage(JSON.stringify(result?.output))];
      }),
    ]);
    const modelProvider: ModelProvider = { getModel: () => model };
    const agents = toSdkAgents(definitions, recordingTools);
    const result = await new Runner({ modelProvider, tracingDisabled: true }).run(
      agents.get('assistant') as Agent,
      'compute nothing',
    );
    expect(failures).toEqual([expect.any(ToolArgumentsError)]);
    expect((failures[0] as Error).message).toContain("Invalid arguments for tool 'calculator'");
    expect(result.finalOutput).toContain('An error occurred while running the tool');
    expect(result.lastAgent?.name).toBe('assistant');
  });
});

describe('input items built with @openai/agents', () => {
  it("run as RunRequest input: the SDK's user, assistant and system items and its content parts", async () => {
    const runner = createRunner({ agents: [createAssistantAgent()] });
    const history: AgentInputItem[] = [system('be brief'), user('I like tea'), assistant('Noted.')];
    const recall = await runner.run({
      agent_name: 'assistant',
      input: [...history, user('what did I say?')] as RunRequest['input'],
    });
    expect(recall.output).toBe('be brief\nI like tea');
    const parts: AgentInputItem = user([
      { type: 'input_text', text: 'describe the parts' },
      { type: 'input_image', image: 'https://example.com/a.png' },
      { type: 'input_file', file: 'data:text/plain;base64,aGk=', filename: 'hi.txt' },
    ]);
    const described = await runner.run({
      agent_name: 'assistant',
      input: [parts] as RunRequest['input'],
    });
    expect(described.output).toBe(
      'text text/plain 18 bytes\nfile image/png at https://example.com/a.png\nfile text/plain 2 bytes',
    );
  });
});
