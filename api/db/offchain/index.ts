export * from "./shared";
export * from "./platform";
export * from "./chat";
export * from "./eval";
export * from "./read-versions";
export * from "./webhooks";
