// `nerdr doctor`'s look at the hook spool (src/supervisor/spool.ts): events waiting for the
// supervisor, and files it moved aside, with the oldest of each.

/** How long ago, for people: 12 s, 5 min, 3 h. */
function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/**
 * The hook spool (src/supervisor/spool.ts): events waiting for the supervisor, and files it moved
 * aside. Waiting files are normal while no supervisor runs; with one running they mean it is stuck.
 */
export async function spoolCheck(dir: string, log: string, supervisorUp: boolean, now = Date.now()): Promise<{ name: string; ok: boolean; detail: string; fix?: string }> {
  const { spoolStatus, ASIDE_DIR } = await import('../supervisor/spool.js');
  const st = await spoolStatus(dir);
  if (!st.exists) return { name: 'hook spool', ok: true, detail: `${dir} (made when the supervisor starts)` };
  const waiting = `${st.waiting} event(s) waiting${st.oldestWaitingMs !== null ? `, the oldest written ${ago(now - st.oldestWaitingMs)} ago` : ''}`;
  const asideAt = st.oldestAside ? Number(st.oldestAside.split('-')[0]) : NaN;
  const aside = st.aside === 0 ? 'none moved aside' : `${st.aside} file(s) moved aside into ${dir}/${ASIDE_DIR} (not nerdr's, or unreadable)${Number.isFinite(asideAt) ? `, the oldest ${ago(now - asideAt)} ago: ${st.oldestAside}` : ''}`;
  const stuck = supervisorUp && st.oldestWaitingMs !== null && now - st.oldestWaitingMs > 10_000;
  return { name: 'hook spool', ok: !stuck, detail: `${dir}: ${waiting}; ${aside}`, ...(stuck ? { fix: `the supervisor is not reading it: see ${log}, then nerdr supervisor restart` } : {}) };
}

