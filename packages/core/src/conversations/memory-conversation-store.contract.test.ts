import { describeConversationStoreContract } from '../testing/conversation-store-contract.ts';
import { createMemoryConversationStore } from './memory-conversation-store.ts';

describeConversationStoreContract('createMemoryConversationStore', (options) =>
  createMemoryConversationStore(options),
);
