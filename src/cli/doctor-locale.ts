// `nerdr doctor`'s look at the locale: the shell's, and whether the running supervisor reads tmux.
// A tmux client without a UTF-8 locale gets tabs and non-ASCII as `_` (src/tmux/server.ts,
// CLIENT_FLAGS); nerdr's own clients pass -u, the rest is the user's.

export interface LocaleCheck {
  name: string;
  ok: boolean;
  /** Not a failure, but worth a fix: shown as `warn`, with the fix, and no exit status of 1. */
  warn?: boolean;
  detail: string;
  fix?: string;
}

/** The variable tmux takes the locale from, as tmux does: the first of LC_ALL, LC_CTYPE, LANG set and not empty. */
export function localeVariable(env: NodeJS.ProcessEnv): { name: string; value: string } | null {
  for (const name of ['LC_ALL', 'LC_CTYPE', 'LANG']) {
    const value = env[name];
    if (value) return { name, value };
  }
  return null;
}

/** tmux's test for a UTF-8 terminal (tmux.c): that variable holds `UTF-8` or `UTF8`, in any case. */
export function utf8Locale(env: NodeJS.ProcessEnv): boolean {
  return /utf-?8/i.test(localeVariable(env)?.value ?? '');
}

/** This shell's locale: without UTF-8 nerdr copes, but what the user starts from here does not. */
export function localeCheck(env: NodeJS.ProcessEnv): LocaleCheck {
  const v = localeVariable(env);
  if (utf8Locale(env)) return { name: 'locale', ok: true, detail: `${v!.name}=${v!.value}` };
  return {
    name: 'locale',
    ok: true,
    warn: true,
    detail:
      `no UTF-8 locale here (${v ? `${v.name}=${v.value}` : 'LC_ALL, LC_CTYPE and LANG unset'}): nerdr copes (its tmux clients pass -u), ` +
      'but a tmux you attach from this shell draws _ for the lights and any non-ASCII text, and agents you start from it run without a UTF-8 locale',
    fix: 'export LANG=C.UTF-8 (or your own UTF-8 locale) in your shell profile; over ssh, SendEnv LANG LC_* here and AcceptEnv LANG LC_* in the server\'s sshd_config',
  };
}

/** What `nerdr.info` answers that this check reads. */
export interface SupervisorInfo {
  pid: number;
  ready?: boolean;
  clientPid?: number | null;
  tmuxVersion?: string;
  agents: number;
}

/**
 * The running supervisor, and whether it reads tmux's replies: one it could not split (tmux
 * printed their tabs as `_` to a client without -u and a UTF-8 locale) has no tmux version and
 * no client pid, and sees no client show a window (done stays done).
 */
export function supervisorCheck(info: SupervisorInfo): LocaleCheck {
  const reads = info.ready === false || (!!info.tmuxVersion && typeof info.clientPid === 'number' && info.clientPid > 0);
  if (!reads) {
    return {
      name: 'supervisor',
      ok: false,
      detail: `pid ${info.pid} misreads tmux: its replies came without a tmux version or client pid (tmux turns their tabs into _ for a client without a UTF-8 locale), so a done agent never turns idle when you look at it`,
      fix: 'nerdr supervisor restart (this nerdr passes tmux -u; the running supervisor is an older one started without a UTF-8 locale)',
    };
  }
  const on = info.tmuxVersion ? ` on tmux ${info.tmuxVersion}` : ' (connecting)';
  return { name: 'supervisor', ok: true, detail: `pid ${info.pid}${on}, ${info.agents} agent(s)` };
}
