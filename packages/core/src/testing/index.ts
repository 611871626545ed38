export { type ReadmeExampleResult, runReadmeExample } from './readme-example.ts';
