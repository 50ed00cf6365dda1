/** Harbor task directories: the task.toml schema and loader shared by the language server and the engine. */
export * from './schema';
export * from './taskToml';
export * from './envExpansion';
export * from './loadTask';
export { indexKeys, locateKey, type KeyPosition, type KeyPath } from './keyLocator';
