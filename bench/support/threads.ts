/**
 * CPU time of this process's threads other than the main one, from Linux's
 * /proc (undefined elsewhere). Node's process.cpuUsage() counts them too,
 * but a main-thread CPU profile does not: V8's helper threads scavenge,
 * mark and compile there.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime: 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

export function helperThreadsCpuMs(): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const tid of tasks) {
    if (tid === String(process.pid)) continue;
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state is the first, utime the 12th, stime the 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
