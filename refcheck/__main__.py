from refcheck.cli import main

main()
