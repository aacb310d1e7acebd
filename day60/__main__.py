from day60.cli import main

main()
