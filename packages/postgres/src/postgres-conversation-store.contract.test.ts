import { describeConversationStoreContract } from '@agentport/core/testing';
import { useStores } from './test-support/database.ts';

const makeStores = useStores();

describeConversationStoreContract(
  'createPostgresConversationStore',
  async ({ now, ttlMs, maxMessagesPerConversation }) => {
    const stores = await makeStores({ now, conversationTtlMs: ttlMs, maxMessagesPerConversation });
    return stores.conversations;
  },
);
