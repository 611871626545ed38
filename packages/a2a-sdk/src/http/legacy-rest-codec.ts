import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import { endsAtPause } from './legacy-final.ts';

/**
 * The A2A v0.3 HTTP+JSON wire format (v0.3 protobuf JSON: `content` parts, `TASK_STATE_*`,
 * `ROLE_*`) to and from the v0.3 objects the SDK's LegacyRestTransportHandler works with; the
 * SDK keeps these codecs internal to its Express router.
 */

type Json = Record<string, unknown>;
type Metadata = Record<string, unknown>;

interface LegacyPart {
  kind: 'text' | 'file' | 'data';
  text?: string;
  file?: { uri?: string; bytes?: string; mimeType?: string };
  data?: Metadata;
}

interface LegacyMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: 'agent' | 'user';
  parts: LegacyPart[];
  metadata?: Metadata;
  extensions?: string[];
}

interface LegacyStatus {
  state: string;
  message?: LegacyMessage;
  timestamp?: string;
}

interface LegacyArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: LegacyPart[];
  metadata?: Metadata;
  extensions?: string[];
}

interface LegacyTask {
  kind: 'task';
  id: string;
  contextId: string;
  status: LegacyStatus;
  artifacts?: LegacyArtifact[];
  history?: LegacyMessage[];
  metadata?: Metadata;
}

/** A v0.3 SendMessage result or stream event, as the SDK's legacy handler produces them. */
export type LegacyEvent =
  | LegacyTask
  | ({ kind: 'message' } & LegacyMessage)
  | {
      kind: 'status-update';
      taskId: string;
      contextId: string;
      status: LegacyStatus;
      final: boolean;
      metadata?: Metadata;
    }
  | {
      kind: 'artifact-update';
      taskId: string;
      contextId: string;
      artifact: LegacyArtifact;
      append?: boolean;
      lastChunk?: boolean;
      metadata?: Metadata;
    };

const isSet = (value: unknown): boolean => value !== null && value !== undefined;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const field = (object: Json, camel: string, snake: string): unknown =>
  isSet(object[camel]) ? object[camel] : object[snake];
const text = (value: unknown): string => (isSet(value) ? String(value) : '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

const STATE_NAMES: Record<string, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
};

function decodeRole(value: unknown): 'agent' | 'user' {
  if (value === 1 || value === 'ROLE_USER') return 'user';
  if (value === 2 || value === 'ROLE_AGENT') return 'agent';
  const number = value === 0 || value === 'ROLE_UNSPECIFIED' || !isSet(value) ? 0 : -1;
  throw LegacyA2AError.invalidParams(`Invalid role: ${number}`);
}

function decodePart(raw: unknown): LegacyPart {
  const part = isObject(raw) ? raw : {};
  if (isSet(part.text)) return { kind: 'text', text: String(part.text) };
  if (isSet(part.file)) {
    const file = isObject(part.file) ? part.file : {};
    const mimeType = text(field(file, 'mimeType', 'mime_type'));
    const uri = field(file, 'fileWithUri', 'file_with_uri');
    if (isSet(uri)) return { kind: 'file', file: { uri: String(uri), mimeType } };
    const bytes = field(file, 'fileWithBytes', 'file_with_bytes');
    if (isSet(bytes)) {
      const normalized = Buffer.from(String(bytes), 'base64').toString('base64');
      return { kind: 'file', file: { bytes: normalized, mimeType } };
    }
    throw LegacyA2AError.invalidParams('Invalid file part type');
  }
  if (isSet(part.data)) {
    const data = isObject(part.data) && isObject(part.data.data) ? part.data.data : {};
    return { kind: 'data', data };
  }
  throw LegacyA2AError.invalidParams('Invalid part type');
}

function decodeMessage(raw: Json): LegacyMessage {
  return {
    messageId: text(field(raw, 'messageId', 'message_id')),
    parts: Array.isArray(raw.content) ? raw.content.map(decodePart) : [],
    contextId: text(field(raw, 'contextId', 'context_id')) || undefined,
    taskId: text(field(raw, 'taskId', 'task_id')) || undefined,
    role: decodeRole(raw.role),
    metadata: isObject(raw.metadata) ? raw.metadata : undefined,
    extensions: strings(raw.extensions),
  } as LegacyMessage & { kind: 'message' };
}

/** Decodes a v0.3 `POST /v1/message:send` (or `:stream`) body into v0.3 MessageSendParams. */
export function decodeLegacySendMessage(body: unknown): Json {
  const object = isObject(body) ? body : {};
  const message = isSet(object.message) ? object.message : object.request;
  if (!isSet(message)) throw LegacyA2AError.invalidParams('SendMessageRequest missing message');
  let configuration: Json | undefined;
  if (isSet(object.configuration)) {
    const raw = isObject(object.configuration) ? object.configuration : {};
    const push = field(raw, 'pushNotification', 'push_notification');
    // Kept (the SDK's Express router drops it): the v0.3 JSON-RPC binding honours it on a send.
    // Protobuf JSON may send an int32 as a string; anything else reaches the handler's check.
    const history = field(raw, 'historyLength', 'history_length');
    configuration = {
      ...(isSet(history)
        ? { historyLength: typeof history === 'string' ? Number(history) : history }
        : {}),
      // Protobuf JSON leaves a false bool out: the official clients send a non-blocking request
      // as a configuration without `blocking` (unlike v0.3 JSON-RPC, see json-rpc-route.ts).
      blocking: isSet(raw.blocking) ? Boolean(raw.blocking) : false,
      acceptedOutputModes: strings(field(raw, 'acceptedOutputModes', 'accepted_output_modes')),
      pushNotificationConfig: isObject(push)
        ? { id: text(push.id), url: text(push.url), token: text(push.token) || undefined }
        : undefined,
    };
  }
  return {
    message: { kind: 'message', ...decodeMessage(isObject(message) ? message : {}) },
    configuration,
    metadata: isObject(object.metadata) ? object.metadata : undefined,
  };
}

function encodePart(part: LegacyPart): Json {
  if (part.kind === 'text') return { text: part.text ?? '' };
  if (part.kind === 'file') {
    const file: Json = {};
    if (part.file?.uri !== undefined) file.fileWithUri = part.file.uri;
    else if (part.file?.bytes !== undefined) {
      file.fileWithBytes = Buffer.from(part.file.bytes, 'base64').toString('base64');
    }
    if (part.file?.mimeType) file.mimeType = part.file.mimeType;
    return { file };
  }
  return { data: part.data === undefined ? {} : { data: part.data } };
}

function encodeMessage(message: LegacyMessage | undefined): Json | undefined {
  if (message === undefined) return undefined;
  const json: Json = {};
  if (message.messageId) json.messageId = message.messageId;
  if (message.contextId) json.contextId = message.contextId;
  if (message.taskId) json.taskId = message.taskId;
  json.role = message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER';
  if (message.parts.length > 0) json.content = message.parts.map(encodePart);
  if (message.metadata !== undefined) json.metadata = message.metadata;
  if (message.extensions?.length) json.extensions = message.extensions;
  return json;
}

function encodeStatus(status: LegacyStatus): Json {
  const json: Json = {};
  if (status.state !== 'unknown') json.state = STATE_NAMES[status.state] ?? 'UNRECOGNIZED';
  const message = encodeMessage(status.message);
  if (message !== undefined) json.message = message;
  if (status.timestamp !== undefined) json.timestamp = status.timestamp;
  return json;
}

function encodeArtifact(artifact: LegacyArtifact): Json {
  const json: Json = {};
  if (artifact.artifactId) json.artifactId = artifact.artifactId;
  if (artifact.name) json.name = artifact.name;
  if (artifact.description) json.description = artifact.description;
  if (artifact.parts.length > 0) json.parts = artifact.parts.map(encodePart);
  if (artifact.metadata !== undefined) json.metadata = artifact.metadata;
  if (artifact.extensions?.length) json.extensions = artifact.extensions;
  return json;
}

/** Encodes a v0.3 Task as v0.3 protobuf JSON. */
export function encodeLegacyTask(task: LegacyTask): Json {
  const json: Json = {};
  if (task.id) json.id = task.id;
  if (task.contextId) json.contextId = task.contextId;
  json.status = encodeStatus(task.status);
  if (task.artifacts?.length) json.artifacts = task.artifacts.map(encodeArtifact);
  const history = (task.history ?? [])
    .map(encodeMessage)
    .filter((message) => message !== undefined);
  if (history.length > 0) json.history = history;
  if (task.metadata !== undefined) json.metadata = task.metadata;
  return json;
}

function event(
  taskId: string,
  contextId: string,
  rest: Json,
  metadata: Metadata | undefined,
): Json {
  const json: Json = {};
  if (taskId) json.taskId = taskId;
  if (contextId) json.contextId = contextId;
  Object.assign(json, rest);
  if (metadata !== undefined) json.metadata = metadata;
  return json;
}

/** Encodes a v0.3 SendMessage result or stream event as v0.3 protobuf JSON. */
export function encodeLegacyEvent(value: LegacyEvent): Json {
  switch (value.kind) {
    case 'task':
      return { task: encodeLegacyTask(value) };
    case 'message':
      return { message: encodeMessage(value) };
    case 'status-update':
      return {
        statusUpdate: event(
          value.taskId,
          value.contextId,
          {
            status: encodeStatus(value.status),
            ...(value.final || endsAtPause(value) ? { final: true } : {}),
          },
          value.metadata,
        ),
      };
    case 'artifact-update':
      return {
        artifactUpdate: event(
          value.taskId,
          value.contextId,
          {
            artifact: encodeArtifact(value.artifact),
            ...(value.append ? { append: true } : {}),
            ...(value.lastChunk ? { lastChunk: true } : {}),
          },
          value.metadata,
        ),
      };
  }
}
