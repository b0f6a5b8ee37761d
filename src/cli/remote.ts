// `HOST:NAME` targets (docs/fleet.md): a target with a colon whose first part names a fleet host
// runs the whole command on that host (src/cli/fleet.ts). Loaded only for targets with a colon,
// so a plain `nerdr send api …` reads no fleet configuration.

/** Runs the command on the fleet host `target` names and exits with its status; else returns. */
export async function remote(word: string, target: string | undefined): Promise<void> {
  if (target === undefined || !target.includes(':')) return;
  const { forwardIfRemote } = await import('./fleet.js');
  await forwardIfRemote(word, target);
}
