import { Command } from 'commander';

export async function main(argv: string[]): Promise<void> {
  const program = new Command('nerdr');
  program.parse(argv);
}
