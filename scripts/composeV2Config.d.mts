// Types of composeV2Config.mjs for the TypeScript test of it.
export declare function userDockerConfig(env: NodeJS.ProcessEnv): string;
export declare function composeV2Config(plugin: string, into: string, user: string): string;
