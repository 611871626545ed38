import { AgentCard } from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { InvalidInputError } from '@agentport/core';
import { createAssistantAgent, createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { createAgentCard, createAgentSkills, toWireAgentCard } from './agent-card.ts';
import { toLegacyAgentCard } from './legacy-agent-card.ts';

const config = {
  name: 'Assistant',
  version: '2.1.0',
  description: 'A rule-based assistant',
  url: 'http://localhost:8080/a2a/assistant/',
};

describe('createAgentSkills', () => {
  it('makes one skill for an agent without tools', () => {
    expect(createAgentSkills(createEchoAgent())).toEqual([
      {
        id: 'echo',
        name: 'echo',
        description: 'Streams its input back word by word.',
        tags: ['agent'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ]);
  });

  it('adds one skill per tool, with its name and description', () => {
    const agent = createAssistantAgent();
    const skills = createAgentSkills(agent);
    expect(skills.map((skill) => [skill.id, skill.name, skill.tags])).toEqual([
      ['assistant', 'assistant', ['agent']],
      ...agent.tools.map((tool) => [`assistant.${tool.name}`, tool.name, ['tool']]),
    ]);
    expect(skills.slice(1).map((skill) => skill.description)).toEqual(
      agent.tools.map((tool) => tool.description),
    );
    expect(skills.length).toBeGreaterThan(1);
  });
});

describe('createAgentCard', () => {
  it('builds the v1.0 card from the config, with JSON-RPC and HTTP+JSON at the url', () => {
    const card = createAgentCard({ agent: createAssistantAgent(), card: config });
    expect(card).toMatchObject({
      name: 'Assistant',
      version: '2.1.0',
      description: 'A rule-based assistant',
    });
    expect(card.supportedInterfaces).toEqual([
      {
        url: 'http://localhost:8080/a2a/assistant/jsonrpc',
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
      {
        url: 'http://localhost:8080/a2a/assistant/rest',
        protocolBinding: 'HTTP+JSON',
        tenant: '',
        protocolVersion: '1.0',
      },
      {
        url: 'http://localhost:8080/a2a/assistant/jsonrpc',
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '0.3',
      },
      {
        url: 'http://localhost:8080/a2a/assistant/rest',
        protocolBinding: 'HTTP+JSON',
        tenant: '',
        protocolVersion: '0.3',
      },
    ]);
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    });
    expect(card.skills).toEqual(createAgentSkills(createAssistantAgent()));
  });

  it('leaves the v0.3 interfaces out without legacy compatibility', () => {
    const card = createAgentCard({ agent: createEchoAgent(), card: config, legacyCompat: false });
    expect(card.supportedInterfaces.map((item) => item.protocolVersion)).toEqual(['1.0', '1.0']);
  });

  it('refuses a relative url or an empty name', () => {
    expect(() =>
      createAgentCard({ agent: createEchoAgent(), card: { ...config, url: '/a2a/echo' } }),
    ).toThrow(InvalidInputError);
    expect(() =>
      createAgentCard({ agent: createEchoAgent(), card: { ...config, url: 'ftp://host/x' } }),
    ).toThrow(InvalidInputError);
    expect(() =>
      createAgentCard({ agent: createEchoAgent(), card: { ...config, name: ' ' } }),
    ).toThrow(/non-empty 'name'/);
  });
});

describe('the card input and output modes', () => {
  it('says text and JSON by default, and the media types an agent is given', () => {
    const plain = createAgentCard({ agent: createEchoAgent(), card: config });
    expect([plain.defaultInputModes, plain.defaultOutputModes]).toEqual([
      ['text/plain', 'application/json'],
      ['text/plain', 'application/json'],
    ]);
    const files = createAgentCard({
      agent: createAssistantAgent(),
      card: config,
      inputModes: ['text/plain', 'image/*', 'application/pdf'],
      outputModes: ['text/markdown'],
    });
    expect(files.defaultInputModes).toEqual(['text/plain', 'image/*', 'application/pdf']);
    expect(files.defaultOutputModes).toEqual(['text/markdown']);
    expect(toLegacyAgentCard(files).defaultInputModes).toEqual(files.defaultInputModes);
  });

  it('takes the modes the agent declares when the options name none', () => {
    const card = createAgentCard({ agent: createAssistantAgent(), card: config });
    expect(card.defaultInputModes).toEqual(createAssistantAgent().inputModes);
    expect(card.defaultInputModes).toContain('image/*');
  });

  it('refuses modes that are not a non-empty list of media types, naming the option', () => {
    const agent = createEchoAgent();
    for (const inputModes of [[], ['text'], [''], [42 as unknown as string]]) {
      expect(() => createAgentCard({ agent, card: config, inputModes })).toThrow(
        expect.objectContaining({ code: 'invalid_input', field: 'inputModes' }),
      );
    }
    expect(() => createAgentCard({ agent, card: config, outputModes: ['a b/c'] })).toThrow(
      InvalidInputError,
    );
  });
});

describe('toLegacyAgentCard', () => {
  it('makes the v0.3 hybrid card: v0.3 fields from the v0.3 interfaces, plus the v1.0 list', () => {
    const card = createAgentCard({
      agent: createEchoAgent(),
      card: config,
      provider: { organization: 'AgentPort', url: 'https://agentport.dev' },
      documentationUrl: 'https://agentport.dev/docs',
    });
    const legacy = toLegacyAgentCard(card);
    expect(legacy).toMatchObject({
      name: 'Assistant',
      url: 'http://localhost:8080/a2a/assistant/jsonrpc',
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      capabilities: { streaming: true, pushNotifications: false },
      // Every v0.3 interface, the main one included (v0.3: SHOULD).
      additionalInterfaces: [
        { url: 'http://localhost:8080/a2a/assistant/jsonrpc', transport: 'JSONRPC' },
        { url: 'http://localhost:8080/a2a/assistant/rest', transport: 'HTTP+JSON' },
      ],
      provider: { organization: 'AgentPort', url: 'https://agentport.dev' },
      documentationUrl: 'https://agentport.dev/docs',
      supportsAuthenticatedExtendedCard: false,
      skills: [
        {
          id: 'echo',
          name: 'echo',
          description: 'Streams its input back word by word.',
          tags: ['agent'],
        },
      ],
    });
    expect(legacy.supportedInterfaces).toEqual(card.supportedInterfaces);
  });

  it('throws VersionNotSupportedError for a card without v0.3 interfaces', () => {
    const card = createAgentCard({ agent: createEchoAgent(), card: config, legacyCompat: false });
    expect(() => toLegacyAgentCard(card)).toThrow(VersionNotSupportedError);
  });
});

describe('bearer auth on the card', () => {
  it('has no security by default', () => {
    const card = createAgentCard({ agent: createEchoAgent(), card: config });
    expect(card.securitySchemes).toEqual({});
    expect(toWireAgentCard(card)).toBe(card);
  });

  it('advertises a bearer scheme in the v1.0 wire form and the v0.3 card', async () => {
    const card = createAgentCard({
      agent: createEchoAgent(),
      card: config,
      bearerAuth: { description: 'API key' },
    });
    const wire = JSON.parse(JSON.stringify(toWireAgentCard(card)));
    expect(wire.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { description: 'API key', scheme: 'Bearer' } },
    });
    expect(wire.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect(AgentCard.fromJSON(wire).securitySchemes).toEqual(card.securitySchemes);
    expect(toLegacyAgentCard(card)).toMatchObject({
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } },
      security: [{ bearer: [] }],
    });
  });

  it('advertises the key in a header as the other way in, when given one', () => {
    const card = createAgentCard({
      agent: createEchoAgent(),
      card: config,
      bearerAuth: { description: 'API key', apiKeyHeader: 'X-API-Key' },
    });
    const wire = JSON.parse(JSON.stringify(toWireAgentCard(card)));
    expect(wire.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { description: 'API key', scheme: 'Bearer' } },
      apiKey: {
        apiKeySecurityScheme: { description: 'API key', location: 'header', name: 'X-API-Key' },
      },
    });
    expect(wire.securityRequirements).toEqual([
      { schemes: { bearer: {} } },
      { schemes: { apiKey: {} } },
    ]);
    expect(AgentCard.fromJSON(wire).securitySchemes).toEqual(card.securitySchemes);
    expect(toLegacyAgentCard(card)).toMatchObject({
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    });
  });
});
