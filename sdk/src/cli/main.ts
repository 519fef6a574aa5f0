// The `standby-licensing` command. Sub-commands arrive with the QA kit issue.
process.stderr.write('standby-licensing: no command yet\n');
process.exitCode = 2;
