/**
 * The CLI's `main()` run in this process: an Io whose output is kept to read, in the folder `cwd()` names, with
 * this process's environment (less GIT_DIR, which would point git elsewhere) and the variables given.
 */
export function capturedIo(cwd: () => string) {
  const printed = { out: '', err: '' };
  const io = (extra: Record<string, string> = {}) => {
    const { GIT_DIR: _, ...env } = process.env;
    printed.out = '';
    printed.err = '';
    return {
      out: (t: string) => {
        printed.out += t;
      },
      err: (t: string) => {
        printed.err += t;
      },
      cwd: cwd(),
      env: { ...env, ...extra },
    };
  };
  return { printed, io };
}
