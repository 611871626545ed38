export {
  type CreatedProject,
  type CreateProjectOptions,
  createProject,
} from './create-project.ts';
export { CreateProjectError, type CreateProjectErrorCode } from './create-project-error.ts';
export { projectNameFor, projectNameProblem } from './project-name.ts';
