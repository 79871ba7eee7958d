// @tetherdev/tether-client: drive Tether's durable agents from TypeScript.
export * from './client';
export * from './handle';
export * from './errors';
export * from './message';
export * from './names';
export * from './schema';
export * from './codec';
export * from './tokens';
export * from './history';
