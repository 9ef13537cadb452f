from fashionrq.cli import main

main()
