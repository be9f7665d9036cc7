/**
 * A program that ends the way a command does after its drain, for the logging suite: it logs a line, waits for
 * standard output's log to be flushed and closed (`flushStdoutLog`), then logs again, as a second SIGTERM arriving
 * on the way out does, and sets its exit code 0. Run in a process of its own: the exit code and what it wrote are
 * all there is to check.
 */
import { createLogger, flushStdoutLog } from "../../src/logging.js";

const logger = createLogger();
logger.info("before the flush");
await flushStdoutLog();
logger.info("after the flush");
process.exitCode = 0;
