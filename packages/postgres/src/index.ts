export {
  type MigrateOptions,
  type MigrationOptions,
  migrate,
  migrationSql,
} from './migrations.ts';
export {
  createPostgresConversationStore,
  type PostgresConversationStoreOptions,
} from './postgres-conversation-store.ts';
export {
  createPostgresStores,
  type PostgresStores,
  type PostgresStoresOptions,
} from './postgres-stores.ts';
export {
  createPostgresTaskStore,
  type PostgresTaskStore,
  type PostgresTaskStoreOptions,
} from './postgres-task-store.ts';
export type { Retention, RetentionOptions } from './retention.ts';
