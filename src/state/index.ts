export * from './arbiter.js';
export * from './constants.js';
export * from './reports.js';
export * from './presentation.js';
