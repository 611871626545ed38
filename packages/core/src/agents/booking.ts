import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';
import { inputRequired } from '../input-required.ts';

const PEOPLE_QUESTION = 'For how many people?';
const TIME_QUESTION = 'What time? (HH:MM)';
const WHOLE_NUMBER = /^\d{1,2}$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const PEOPLE_SCHEMA = { type: 'integer', minimum: 1, maximum: 20 };
const TIME_SCHEMA = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' };

/** Where a booking conversation stands: what the agent asked last. */
type BookingState = { step: 'people' } | { step: 'time'; people: number };

function isBookingState(value: unknown): value is BookingState {
  if (typeof value !== 'object' || value === null) return false;
  const { step, people } = value as Record<string, unknown>;
  return step === 'people' || (step === 'time' && typeof people === 'number');
}

const askPeople = () =>
  inputRequired(PEOPLE_QUESTION, { schema: PEOPLE_SCHEMA, state: { step: 'people' } });
const askTime = (people: number) =>
  inputRequired(TIME_QUESTION, { schema: TIME_SCHEMA, state: { step: 'time', people } });

/**
 * Creates the deterministic `booking` agent, a conversation that pauses twice: any first message
 * is answered by asking "For how many people?", a whole number from 1 to 20 by "What time?
 * (HH:MM)", and a valid time completes with "Booked a table for N at HH:MM."; anything else asks
 * the same question again. Each question leaves the task `input-required`, its state carried
 * by the task (`context.resumeState`), not by the process.
 */
export function createBookingAgent(): Agent {
  return defineAgent({
    name: 'booking',
    description: 'Books a table in two questions: how many people, and what time.',
    instructions: 'Ask for the number of people (1-20), then the time (HH:MM), then confirm.',
    model: 'agentport/rules',
    async *run(input, context) {
      const state = context.resumeState;
      const answer = input.trim();
      if (!isBookingState(state)) return askPeople();
      if (state.step === 'people') {
        const people = WHOLE_NUMBER.test(answer) ? Number(answer) : 0;
        return people >= 1 && people <= 20 ? askTime(people) : askPeople();
      }
      if (!TIME.test(answer)) return askTime(state.people);
      yield { type: 'text-delta', delta: `Booked a table for ${state.people} at ${answer}.` };
    },
  });
}
