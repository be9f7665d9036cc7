/** Whether a port can be listened on now, checked before a start's slow work (migrating, loading the data). */
import { createServer } from "node:net";

/**
 * Resolves when something could listen on `host:port` now; rejects with the error listening would give
 * (EADDRINUSE, EACCES). Port 0 (any free port) always resolves.
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
