import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from './config.js';
import type { LogFields, Logger } from './ports.js';

class PowertoolsAdapter implements Logger {
  constructor(private readonly inner: PowertoolsLogger) {}

  debug(message: string, fields?: LogFields): void {
    this.inner.debug(message, fields ?? {});
  }
  info(message: string, fields?: LogFields): void {
    this.inner.info(message, fields ?? {});
  }
  warn(message: string, fields?: LogFields): void {
    this.inner.warn(message, fields ?? {});
  }
  error(message: string, fields?: LogFields): void {
    this.inner.error(message, fields ?? {});
  }
  child(fields: LogFields): Logger {
    return new PowertoolsAdapter(this.inner.createChild({ persistentKeys: fields }) as PowertoolsLogger);
  }
}

/** The structured JSON logger used in Lambda and the local stack (Powertools for AWS Lambda). */
export function createLogger(options: { level: LogLevel; service?: string }): Logger {
  return new PowertoolsAdapter(
    new PowertoolsLogger({ serviceName: options.service ?? 'gitops-sync', logLevel: options.level }),
  );
}

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

/** A logger that keeps its lines in memory, for tests that read what was logged. */
export function createMemoryLogger(lines: LogLine[] = []): Logger & { readonly lines: LogLine[] } {
  const make = (base: LogFields): Logger & { readonly lines: LogLine[] } => {
    const write = (level: LogLine['level']) => (message: string, fields?: LogFields) => {
      lines.push({ level, message, fields: { ...base, ...fields } });
    };
    return {
      lines,
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({});
}
