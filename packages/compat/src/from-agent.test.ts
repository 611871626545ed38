import { type Agent, defineAgent, defineTool, InvalidInputError } from '@agentport/core';
import { createAssistantAgent, createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromAgent, fromHandoffs, fromTools, handoffToolName } from './from-agent.ts';

const lookup = defineTool({
  name: 'lookup_invoice',
  description: 'Looks up an invoice',
  parameters: z.object({ id: z.string(), verbose: z.boolean().optional() }),
  execute: ({ id }) => ({ id, amount: 42 }),
});

const bare = defineTool({
  name: 'ping',
  parameters: { type: 'object' },
  execute: () => 'pong',
});

function agentNamed(name: string, extra: Partial<Parameters<typeof defineAgent>[0]> = {}) {
  return defineAgent({
    name,
    async *run() {
      yield { type: 'text-delta', delta: name };
    },
    ...extra,
  });
}

describe('fromAgent', () => {
  it('converts an agent without tools or handoffs to a bare AgentDef', () => {
    expect(fromAgent(agentNamed('plain'))).toEqual({ name: 'plain' });
    expect(fromAgent(createEchoAgent())).toEqual({
      name: 'echo',
      instructions: 'Repeat the input exactly.',
      model: 'agentport/echo',
    });
  });

  it('converts an agent with tools and a handoff', () => {
    const definition = fromAgent(createAssistantAgent());
    expect(definition.name).toBe('assistant');
    expect(definition.model).toBe('agentport/rules');
    expect(definition.instructions).toMatch(/arithmetic/);
    expect(definition.tools?.map((tool) => tool.function.name)).toEqual([
      'calculator',
      'clock',
      'word_count',
    ]);
    expect(definition.tools?.[0]).toEqual({
      type: 'function',
      function: {
        name: 'calculator',
        description: 'Evaluates an arithmetic expression with + - * / % ^ and parentheses.',
        parameters: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: {
            expression: {
              type: 'string',
              minLength: 1,
              maxLength: 500,
              description: 'The expression, such as 2 * (3 + 4)',
            },
          },
          required: ['expression'],
          additionalProperties: false,
        },
      },
    });
    expect(definition.handoffs).toEqual([
      {
        name: 'echo',
        description: 'Streams its input back word by word.',
        tool_name: 'transfer_to_echo',
      },
    ]);
  });

  it('describes nested handoffs by descriptor, one level per AgentDef', () => {
    const leaf = agentNamed('leaf-agent', { description: 'The end of the line' });
    const middle = agentNamed('middle', { handoffs: [leaf] });
    const top = agentNamed('top', { handoffs: [middle] });
    expect(fromAgent(top).handoffs).toEqual([{ name: 'middle', tool_name: 'transfer_to_middle' }]);
    expect(fromAgent(middle).handoffs).toEqual([
      {
        name: 'leaf-agent',
        description: 'The end of the line',
        tool_name: 'transfer_to_leaf_agent',
      },
    ]);
  });

  it('refuses handoffs, or a handoff and a tool, that a model could not tell apart', () => {
    const twins = agentNamed('router', { handoffs: [agentNamed('a-b'), agentNamed('a_b')] });
    expect(() => fromAgent(twins)).toThrow(InvalidInputError);
    expect(() => fromAgent(twins)).toThrow(
      /'a-b' and the handoff to 'a_b' share .*transfer_to_a_b/,
    );
    const shadowing = defineTool({
      name: 'transfer_to_helper',
      parameters: { type: 'object' },
      execute: () => 'x',
    });
    const clash = agentNamed('router', { tools: [shadowing], handoffs: [agentNamed('helper')] });
    expect(() => fromAgent(clash)).toThrow(/tool 'transfer_to_helper' and the handoff to 'helper'/);
  });

  it('describes handoffs that form a cycle without recursing forever', () => {
    const handoffs: Agent[] = [];
    const ping: Agent = { ...agentNamed('ping'), handoffs };
    const pong = agentNamed('pong', { handoffs: [ping] });
    handoffs.push(pong);
    expect(fromAgent(ping).handoffs).toEqual([{ name: 'pong', tool_name: 'transfer_to_pong' }]);
  });

  it('produces plain JSON that round-trips through JSON.stringify and JSON.parse unchanged', () => {
    const agent = agentNamed('mixed', {
      instructions: 'Use the tools.',
      model: 'gpt-test',
      tools: [lookup, bare],
      handoffs: [createAssistantAgent()],
    });
    const definition = fromAgent(agent);
    expect(JSON.parse(JSON.stringify(definition))).toEqual(definition);
    expect(Object.getPrototypeOf(definition)).toBe(Object.prototype);
  });

  it('does not share its parameters with the tool it came from', () => {
    const [definition] = fromTools([lookup]);
    (definition?.function.parameters as { type: string }).type = 'changed';
    expect(lookup.parameters.type).toBe('object');
  });
});

describe('fromTools', () => {
  it('converts tools to the nested function shape with the schema defaults stated', () => {
    expect(fromTools([bare, lookup])).toEqual([
      {
        type: 'function',
        function: {
          name: 'ping',
          parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
        },
      },
      {
        type: 'function',
        function: {
          name: 'lookup_invoice',
          description: 'Looks up an invoice',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { id: { type: 'string' }, verbose: { type: 'boolean' } },
            required: ['id'],
            additionalProperties: false,
          }),
        },
      },
    ]);
  });

  it('converts an empty list to an empty list', () => {
    expect(fromTools([])).toEqual([]);
  });

  it('rejects a tool whose parameters do not describe an object', () => {
    const scalar = { ...bare, parameters: { type: 'string' } };
    expect(() => fromTools([scalar])).toThrow(InvalidInputError);
    expect(() => fromTools([scalar])).toThrow("Tool 'ping' parameters must be a JSON Schema");
  });
});

describe('handoffs', () => {
  it('names the handoff tool transfer_to_<agent_name> as the Agents SDK does', () => {
    expect(handoffToolName('echo')).toBe('transfer_to_echo');
    expect(handoffToolName('billing-agent')).toBe('transfer_to_billing_agent');
    expect(handoffToolName('Billing Agent')).toBe('transfer_to_Billing_Agent');
  });

  it('converts handoff targets to descriptors', () => {
    expect(fromHandoffs([createEchoAgent('shadow')])).toEqual([
      {
        name: 'shadow',
        description: 'Streams its input back word by word.',
        tool_name: 'transfer_to_shadow',
      },
    ]);
  });
});
