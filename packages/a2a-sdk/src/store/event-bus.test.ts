import {
  AgentEvent,
  type AgentExecutionEvent,
  ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { ListenerExecutionEventBus, ListenerExecutionEventBusManager } from './event-bus.ts';

const event = (id: string): AgentExecutionEvent =>
  AgentEvent.message({
    messageId: id,
    contextId: '',
    taskId: '',
    role: 2,
    parts: [],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });

describe('ListenerExecutionEventBus', () => {
  it('delivers events in order to its listeners, once listeners only once', () => {
    const bus = new ListenerExecutionEventBus();
    const seen: string[] = [];
    bus.on('event', (item) => seen.push(`a:${item.kind === 'message' ? item.data.messageId : ''}`));
    bus.once('event', () => seen.push('once'));
    bus.on('finished', () => seen.push('finished'));
    bus.publish(event('1'));
    bus.publish(event('2'));
    bus.finished();
    expect(seen).toEqual(['a:1', 'once', 'a:2', 'finished']);
  });

  it('skips a listener removed by an earlier one during a dispatch, like EventTarget', () => {
    const bus = new ListenerExecutionEventBus();
    const seen: string[] = [];
    const second = () => seen.push('second');
    bus.on('event', () => {
      seen.push('first');
      bus.off('event', second);
    });
    bus.on('event', second);
    bus.publish(event('1'));
    bus.publish(event('2'));
    expect(seen).toEqual(['first', 'first']);
  });

  it('removes all listeners, or those of one kind', () => {
    const bus = new ListenerExecutionEventBus();
    const seen: string[] = [];
    bus.on('event', () => seen.push('event'));
    bus.on('finished', () => seen.push('finished'));
    bus.removeAllListeners('event');
    bus.publish(event('1'));
    bus.finished();
    bus.removeAllListeners();
    bus.finished();
    expect(seen).toEqual(['finished']);
  });
});

describe('ListenerExecutionEventBusManager', () => {
  it('keeps one bus per task and user, until cleaned up', () => {
    const manager = new ListenerExecutionEventBusManager();
    const alice = new ServerCallContext({ user: new UnauthenticatedUser() });
    const acme = new ServerCallContext({ user: new UnauthenticatedUser(), tenant: 'acme' });
    const bus = manager.createOrGetByTaskId('t', alice);
    expect(manager.createOrGetByTaskId('t', alice)).toBe(bus);
    expect(manager.getByTaskId('t', acme)).toBeUndefined();
    manager.cleanupByTaskId('t', alice);
    expect(manager.getByTaskId('t', alice)).toBeUndefined();
  });
});
