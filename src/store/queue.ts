// Queued messages per agent, kept on disk so they survive a supervisor restart:
// <state>/queues/<agent id>.json, written atomically on every change.

import { readFileSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';

export interface QueuedMessage {
  id: string;
  text: string;
  queuedAt: number;
}

export interface AgentQueue {
  messages: QueuedMessage[];
  /** Set when a delivery got no response: the queue waits for the user to visit the window. */
  stalledAt: number | null;
}

export class QueueStore {
  constructor(private readonly dir: string) {}

  private file(agentId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(agentId)) throw new Error(`bad agent id ${JSON.stringify(agentId)}`);
    return path.join(this.dir, `${agentId}.json`);
  }

  load(agentId: string): AgentQueue {
    try {
      const q = JSON.parse(readFileSync(this.file(agentId), 'utf8')) as Partial<AgentQueue>;
      const messages = Array.isArray(q.messages) ? q.messages.filter((m) => m && typeof m.text === 'string') : [];
      return { messages, stalledAt: typeof q.stalledAt === 'number' ? q.stalledAt : null };
    } catch {
      return { messages: [], stalledAt: null };
    }
  }

  save(agentId: string, q: AgentQueue): void {
    if (q.messages.length === 0 && q.stalledAt === null) {
      try {
        unlinkSync(this.file(agentId));
      } catch {
        /* nothing queued before either */
      }
      return;
    }
    writeFileAtomic(this.file(agentId), JSON.stringify(q));
  }

  ids(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5));
    } catch {
      return [];
    }
  }
}
