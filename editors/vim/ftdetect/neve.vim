" Neve files (.nv) use the neve syntax (editors/vim/syntax/neve.vim).
au BufRead,BufNewFile *.nv setfiletype neve
