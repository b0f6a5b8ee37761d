// The agents the suite drives: the same profiles `nerdr selftest` uses.
export * from '../../src/selftest/profiles.js';
