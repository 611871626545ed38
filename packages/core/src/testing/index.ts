export { createNumericAgent } from './numeric-agent.ts';
export { type ReadmeExampleResult, runReadmeExample } from './readme-example.ts';
