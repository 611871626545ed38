export {
  assertExportsDocumented,
  findUndocumentedExports,
  type UndocumentedExport,
} from './exports-documented.ts';
export { createNumericAgent } from './numeric-agent.ts';
export { type ReadmeExampleResult, runReadmeExample } from './readme-example.ts';
